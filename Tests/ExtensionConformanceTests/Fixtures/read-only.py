#!/usr/bin/env python3
"""The good fixture with no write and no change feed declared (--bug read-only): the kit must skip, not fail."""
import os, sys

good = os.path.join(os.path.dirname(os.path.abspath(__file__)), "good.py")
os.execv(sys.executable, [sys.executable, good, "--bug", "read-only"] + sys.argv[1:])
