#!/usr/bin/env python3
"""The good fixture with one rule broken on purpose (--bug crash-on-rename): the kit must fail for it."""
import os, sys

good = os.path.join(os.path.dirname(os.path.abspath(__file__)), "good.py")
os.execv(sys.executable, [sys.executable, good, "--bug", "crash-on-rename"] + sys.argv[1:])
