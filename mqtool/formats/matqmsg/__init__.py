"""IBM i MATQMSG receiver and message selection templates (``templates``)."""
