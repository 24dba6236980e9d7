"""The operations of ``protocol.OPERATIONS``, one handler each, all of one signature:
``take(state, fields, ns, hidden, tracker) -> reply`` (``entry.HANDLERS`` lists them)."""
