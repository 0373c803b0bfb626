"""scanner"""
