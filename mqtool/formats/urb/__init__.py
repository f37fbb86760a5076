"""Adabas Event Replicator URB messages: ``layout`` (declarations), ``meanings``, ``decode``
(span walk), ``build`` (requests), ``bulk`` (columnar walk)."""
