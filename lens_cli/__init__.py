"""``footprint-lens``, the command line: one module per subcommand, registered in
:mod:`lens_cli.main`. It sits above ``lens/`` and ``archive/`` and is imported by
neither, so the layers below stay free of the commands that use them."""
