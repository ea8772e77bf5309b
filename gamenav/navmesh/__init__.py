"""Navigation meshes: build (shapely repair -> constrained Delaunay triangulation), locate,
raycast, and search (portal A* + funnel, or exact Polyanya). Coordinates are world ``(x, y)``,
finite and within ``[-MAX_COORDINATE, MAX_COORDINATE]``."""

from gamenav.navmesh.build import MAX_COORDINATE
from gamenav.navmesh.mesh import NavMesh, RaycastHit
from gamenav.navmesh.search import NavMeshSearch

__all__ = ["MAX_COORDINATE", "NavMesh", "NavMeshSearch", "RaycastHit"]
