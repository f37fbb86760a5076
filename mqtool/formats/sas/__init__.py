"""SAS Application Messaging attachments over MQ: ``layout`` (declarations, CorrelId,
sender settings), ``decode`` (every message kind, a dump's messages in their roles),
``build`` (message builders), ``datasets`` (numerics, observations, writers),
``message_set`` (building a message set), ``request`` (requests from YAML / JSON),
``reassemble`` (the reassembly pipeline), ``codec`` (the registry protocol)."""
