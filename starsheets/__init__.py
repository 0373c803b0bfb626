"""starsheets"""
