"""Who is calling: accounts, guests and their purge, names compared by skeleton, sign-in
tokens (``auth``), roles, and ratings as players see them (``standings``). Owns the
``accounts`` table (``store``).
"""
