"""SAS Application Messaging attachments over MQ: ``attachment`` (declarations, decode of
every message kind), ``datasets`` (data set definitions, observations, writers),
``message_set`` (building a message set), ``reassemble`` (the reassembly pipeline)."""
