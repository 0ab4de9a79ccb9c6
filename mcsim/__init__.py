"""mcsim: a Monte Carlo analyzer for five tabletop games.

>>> import mcsim
>>> r = mcsim.simulate("sacred-hill", games=100, seed=1)
>>> sorted(r.summary)[:3]
['compile_seconds', 'elapsed_seconds', 'game']
"""

__version__ = "0.1.0"

from mcsim.runner import SimulationResult, simulate  # noqa: E402

__all__ = ["simulate", "SimulationResult", "__version__"]
