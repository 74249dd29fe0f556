import os

os.environ.setdefault("WORKBOOK_MODE", "ci")
