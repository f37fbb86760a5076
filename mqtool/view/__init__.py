"""``mqtool view``: an interactive explorer of decoded units (Textual, the ``view`` extra).

``sources`` opens any input mqtool reads as a lazy list of units, ``fields`` turns a unit
into the field tree, ``hexlines`` renders its annotated hex, ``export`` writes a selection;
only ``app`` and ``widgets`` import Textual.
"""
