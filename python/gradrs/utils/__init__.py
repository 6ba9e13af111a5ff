"""`gradrs.utils`: data loading and other utilities."""
