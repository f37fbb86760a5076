"""IBM MQ: the MQMD (``mqmd``) and the queue dumps real messages come in (``dumps``:
dmpmqmsg, amqsbcg, MQMD-prefixed binaries, mqtool directories)."""
