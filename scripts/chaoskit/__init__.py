"""The chaos runner's parts (`scripts/chaos.py`): the cluster it runs and hurts (`cluster`), the
players it sends (`players`), the faults it chooses from its seed (`faults`) and what it checks
at the end (`checks`)."""
