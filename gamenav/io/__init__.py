"""File formats: Moving AI ``.map`` / ``.scen`` grids and scenarios (navmesh formats: see ``gamenav.io.mesh``)."""

from gamenav.io.movingai import Scenario, read_map, read_scenarios, write_map, write_scenarios

__all__ = ["Scenario", "read_map", "read_scenarios", "write_map", "write_scenarios"]
