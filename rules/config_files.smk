# Read before `configfile:` (see the Snakefile): a YAML syntax error in the base config file, and
# a key given twice in it or in a --configfile overlay (YAML silently keeps the last), are named by
# file, line and config field (workflow_scripts/config/files.py). Overlays with a syntax error never
# reach this point: Snakemake stops while reading them ("Config file is not valid JSON or YAML";
# `--verbose` shows the file and line, or run `python -m workflow_scripts.config.files FILE`).
import sys

from snakemake.exceptions import WorkflowError

sys.path.insert(0, workflow.basedir)  # workflow_scripts importable even without `pip install -e .`

from workflow_scripts.config.files import check_config_files  # noqa: E402
from workflow_scripts.errors import ConfigError  # noqa: E402

try:
    check_config_files([CONFIG_FILE, *workflow.overwrite_configfiles])
except ConfigError as error:
    raise WorkflowError(str(error)) from None
