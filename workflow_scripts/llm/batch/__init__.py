"""Batch mode (a model's ``batch: true``): a job's missing requests asked through a provider's batch API.

- :mod:`.asking`: the batch pass before a job's synchronous pass, which then finds the answers cached;
- :mod:`.reach`: which providers' batch APIs the pinned litellm really reaches.
"""
