import sys

from langbite.cli import main

sys.exit(main())
