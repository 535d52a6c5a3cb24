"""The HTTP side: routes as Litestar controllers that decode, call a room below and
encode; the caller comes in by dependency (``deps``), roles by guards; every route
declares the codes it answers (``apidocs``). Owns no table.
"""
