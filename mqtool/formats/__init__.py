"""One package per wire format. Each package's ``codec`` module is what the registry uses: ``FORMAT``,
``decode(data, **options)``, ``detect(data)`` and, where the format has one, ``build``.

Nothing below this package (``layout``, ``model``, ``io``, ``render``, ``codepages``)
imports it; ``mq`` (MQMD, MQ headers, queue dumps) is the one format the others may use,
since their messages travel inside MQ messages.
"""
