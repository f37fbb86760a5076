"""TIBCO OSB redolog entries and user-exit parameter lists (``redolog``)."""
