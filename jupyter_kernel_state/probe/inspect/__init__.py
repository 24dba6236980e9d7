"""What a value is and how it reads, without trusting it: the per-type inspectors behind
a dispatch table (``base``, ``scalars``, ``containers``, ``objects``, ``arrays``,
``tables``, ``third_party``), bounded text (``display``), a value's summary (``summary``,
``static`` when no time guard can arm), their JSON text (``fragments``) and their cache
(``cache``), and one value in depth (``in_depth``)."""
