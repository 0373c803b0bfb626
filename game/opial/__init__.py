"""game/opial"""
