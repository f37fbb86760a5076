"""IBM i MATQMSG receiver and message selection templates: ``layout`` (declarations, meaning
tables), ``rules`` (the machine's template rules), ``decode``, ``build``, ``detect``."""
