"""Placeholder until the diff suite lands."""
import unittest

if __name__ == "__main__":
    unittest.main()
