"""gamenav demo: an arcade RTS scene with hundreds of units (``python -m demo_game``).

Uses only gamenav's public API (``gamenav`` and ``gamenav.adapters.arcade``).
"""
