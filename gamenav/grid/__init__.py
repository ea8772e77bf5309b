"""Tile-grid navigation: :class:`TileGrid`, movement rules, A*, JPS and Dijkstra searches.

Arrays are indexed ``[y, x]``; the public API takes and returns ``(x, y)``.
"""

from gamenav.grid.movement import Diagonal, Heuristic
from gamenav.grid.tilegrid import GridChange, TileGrid

__all__ = ["Diagonal", "GridChange", "Heuristic", "TileGrid"]
