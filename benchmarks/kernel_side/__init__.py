"""Code that runs INSIDE the benchmarked kernel (stdlib + whatever the state needs).

Each module here is sent to the kernel as source (see ``benchmarks/kernels.py``) and lives
in ``sys.modules`` under ``_jks_bench.<module>``, never in the user namespace.
"""
