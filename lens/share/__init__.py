"""Sharing a run outside this server: exports, each redacted on request.

- :mod:`lens.share.redaction`: the :class:`~lens.share.redaction.Redactor`
  (what is masked, the consent preview).
- :mod:`lens.share.recording_export`: a recording written back in its input's
  own format, redacted or as it was.
- ``footprint-lens export recording|html|otlp`` (:mod:`lens_cli.export_command`)
  runs them from a terminal.

Pure: nothing here imports streamlit; the app's Share menu calls these.
"""
