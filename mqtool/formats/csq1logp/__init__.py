"""IBM MQ for z/OS CSQ1LOGP EXTRACT records: ``layout`` (declaration, meanings, record-date
rules), ``framing`` (RDW/BDW/unframed, resync), ``decode``, ``build``, ``bulk`` (numpy/Arrow),
``extract`` (the local pipeline), ``segments`` (message reassembly)."""
