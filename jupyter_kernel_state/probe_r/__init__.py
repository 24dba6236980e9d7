"""The R probe (R source files shipped to IRkernel kernels; see service/languages/r.py)."""
