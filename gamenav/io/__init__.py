"""File formats: Moving AI ``.map`` / ``.scen`` grids and scenarios (navmesh formats: see ``gamenav.io.mesh``)."""

from gamenav.io.mesh import MeshData, MeshScenario, read_mesh, read_mesh_scenarios
from gamenav.io.movingai import Scenario, read_map, read_scenarios, write_map, write_scenarios

__all__ = ["MeshData", "MeshScenario", "Scenario", "read_map", "read_mesh", "read_mesh_scenarios",
           "read_scenarios", "write_map", "write_scenarios"]
