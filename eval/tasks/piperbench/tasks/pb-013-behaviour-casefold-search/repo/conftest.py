# Lets `python3 -m pytest tests/` import the package from the repository root.
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
