"""Queue dumps: readers (``read``) and writers (``write``) of the files MQ tools produce."""
