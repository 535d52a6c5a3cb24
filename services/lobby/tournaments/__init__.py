"""Tournaments as the lobby offers them (``tournaments``): the caller becomes the
command's author, the tournament service decides. Owns no table.
"""
