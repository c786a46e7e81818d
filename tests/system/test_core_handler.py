#!/usr/bin/env python3
import sys
sys.exit("not written yet")
