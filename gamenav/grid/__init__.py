"""Tile-grid navigation: :class:`TileGrid`, movement rules, A*, JPS and Dijkstra searches.

Arrays are indexed ``[y, x]``; the public API takes and returns ``(x, y)``.
"""

from gamenav.grid.fields import distance_field
from gamenav.grid.movement import Diagonal, Heuristic
from gamenav.grid.search import GridSearch, SearchWorkspace
from gamenav.grid.tilegrid import GridChange, TileGrid

__all__ = ["Diagonal", "GridChange", "GridSearch", "Heuristic", "SearchWorkspace", "TileGrid",
           "distance_field"]
