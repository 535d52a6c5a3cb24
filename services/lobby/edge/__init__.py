"""The WebSocket side: one socket (``socket``), the connections and their limits, the
frame table, the gateway that routes frames to the rooms below, following a game's
events (``following``), notes, table and tournament feeds, chat, the grace a dropped
player gets, and the frames of ready checks and the ranked queue. Owns no table.
"""
