"""Numba kernels: arrays in, arrays out, no Python objects.

A kernel module never imports from ``mcsim``; ``mcsim.games.<game>`` is the only place that
knows both the human names (cells, tiles, cards) and the kernel encoding.
"""
