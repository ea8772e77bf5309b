"""Tile-grid navigation: :class:`TileGrid`, movement rules, A*, JPS and Dijkstra searches.

Arrays are indexed ``[y, x]``; the public API takes and returns ``(x, y)``.
"""

from gamenav.grid.clearance import MAX_RADIUS_CELLS, clearance_field, clearance_mask
from gamenav.grid.fields import distance_field
from gamenav.grid.movement import Diagonal, Heuristic
from gamenav.grid.search import GridSearch, SearchWorkspace, prepare
from gamenav.grid.tilegrid import GridChange, TileGrid

__all__ = ["MAX_RADIUS_CELLS", "Diagonal", "GridChange", "GridSearch", "Heuristic", "SearchWorkspace",
           "TileGrid", "clearance_field", "clearance_mask", "distance_field", "prepare"]
