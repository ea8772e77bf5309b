"""Navigation meshes: build (shapely repair -> constrained Delaunay triangulation), locate,
raycast, and search (portal A* + funnel, or exact Polyanya). Coordinates are world ``(x, y)``."""

from gamenav.navmesh.mesh import NavMesh, RaycastHit
from gamenav.navmesh.search import NavMeshSearch

__all__ = ["NavMesh", "NavMeshSearch", "RaycastHit"]
