"""TIBCO OSB redolog entries and user-exit structures: ``layout`` (declarations, meaning
tables), ``decode``, ``build``, ``detect``."""
