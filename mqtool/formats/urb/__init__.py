"""Adabas Event Replicator URB messages: ``layout`` (declarations and composition tables),
``meanings``, ``decode`` (span walk), ``bulk`` (columnar walk), ``fastjson`` / ``fastlist``
(JSON and listings from generated per-layout builders), ``build`` (requests) and ``compose``
(any message), ``extract`` (change tables, with ``tables``, ``changes``, ``stream``)."""
