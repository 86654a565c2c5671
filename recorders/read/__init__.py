"""Every kind of file Lens reads, one module per kind, behind one registry.

``names`` holds the kinds' names (the ``source_kind`` of a run, the ``kind``
of a loaded file): compare with these, never with a bare string. ``registry``
is the table of :class:`~recorders.read.registry.FileKind` records the
loader (``recorders/loading.py``) asks which kind a file is and which reader
reads it. Each other module here reads one kind of file into a
:class:`~recorders.read.model.Recording`.

Nothing is imported here, so that a module below the readers (the audit
chain check, the per-event validation) can import one of them without
loading all of them.
"""
