from benchmarks.run import main
import sys

sys.exit(main())
