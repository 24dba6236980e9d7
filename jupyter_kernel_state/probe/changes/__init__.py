"""Change tracking: the ``post_run_cell`` hook (``tracker``), the namespace against the
last scan (``bindings``), the facts kept per name (``records``), fingerprints and the
words for how a value changed (``fingerprints``, ``copies``, and ``samples`` for what is
nested), the content fingerprints of tables and arrays (``contents``: columns read by
``sources``, hashed by ``hashing`` and ``polars_hashing``, told by ``table_words``), the
bounded logs of what each execution stamped (``logs``), and what changed since an
execution (``since``)."""
