"""Overlay files read by the project's own reader before Snakemake parses them.

Snakemake 9.27.1 loads every ``--configfile`` while it reads its command line
(``snakemake.settings.types.ConfigSettings``), before the Snakefile runs, and for a YAML syntax
error says only "Config file is not valid JSON or YAML" (``snakemake.common.configfile``), with
neither file nor line. No workflow code runs that early, so this hook is imported at interpreter
start by ``llm_dilemmas_config.pth``, which ``make setup`` writes into the environment's
site-packages (``python -m workflow_scripts.config.snakemake_hook install``). It does nothing until
``snakemake.common.configfile`` is imported (only Snakemake imports it), then wraps that module's
loader: a config file that does not exist is named with the likely cause (a target written after
``--configfile``); a config file Snakemake cannot load is read by :func:`workflow_scripts.config.files.file_problems`,
and the error names the file, line and column and the fix (keys withheld:
:mod:`workflow_scripts.config.redaction`). Files Snakemake loads are untouched; the base config's
problems and keys given twice in any file are still found by rules/config_files.smk.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import sysconfig
from pathlib import Path

TARGET = "snakemake.common.configfile"
PTH_NAME = "llm_dilemmas_config.pth"
PTH_LINE = ("import importlib.util as _u; _u.find_spec('workflow_scripts') is not None and "
            "__import__('workflow_scripts.config.snakemake_hook')\n")


class _Finder(importlib.abc.MetaPathFinder):
    """Finds :data:`TARGET` as the path finder would, and patches it once it has run."""

    def find_spec(self, name, path=None, target=None):
        if name != TARGET:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            patch(module)

        spec.loader.exec_module = exec_module
        return spec


def patch(module) -> None:
    """Wrap ``module._load_configfile`` (Snakemake's loader of config files, also used by
    ``snakemake.utils.validate`` for schemas) so its syntax-error message names file and line."""
    load = module._load_configfile

    def load_configfile(configpath_or_obj, filetype="Config"):
        try:
            return load(configpath_or_obj, filetype)
        except FileNotFoundError:
            raise module.WorkflowError(missing(configpath_or_obj, filetype)) from None
        except module.WorkflowError:
            message = located(configpath_or_obj, filetype)
            if message is None:
                raise
            raise module.WorkflowError(message) from None

    module._load_configfile = load_configfile


def missing(path, filetype: str = "Config") -> str:
    """What to do about a config file that does not exist: most often a target written after
    ``--configfile``, which takes every word after it as a file."""
    return (f"{filetype} file {str(path)!r} does not exist (nothing was run). --configfile reads every word "
            "after it as a config file: if this is a target, put targets before --configfile "
            "(snakemake results/plan.csv --configfile overlay.yaml) or end the files with --")


def located(path, filetype: str = "Config") -> str | None:
    """The project's reading of a config file Snakemake could not load, or None (not a path, or
    nothing found: Snakemake's own message stands)."""
    if not isinstance(path, (str, Path)) or not Path(path).exists():
        return None
    from workflow_scripts.config.files import file_problems
    from workflow_scripts.config.redaction import redact

    problems = file_problems(path)
    if not problems:
        return None
    return redact(f"{filetype} file problems (nothing was run):\n  - " + "\n  - ".join(problems))


def install(site_packages: str | None = None) -> Path:
    """Write :data:`PTH_NAME` into ``site_packages`` (default: this interpreter's purelib)."""
    target = Path(site_packages or sysconfig.get_paths()["purelib"]) / PTH_NAME
    target.write_text(PTH_LINE, encoding="utf-8")
    return target


if not any(isinstance(finder, _Finder) for finder in sys.meta_path) and TARGET not in sys.modules:
    sys.meta_path.insert(0, _Finder())

if __name__ == "__main__" and sys.argv[1:] == ["install"]:
    print(f"wrote {install()}")
