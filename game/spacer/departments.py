"""Departments, fields, the Officer multi-class, service and rank checks."""

from __future__ import annotations

from game.spacer import derived
from game.spacer.character import DepartmentEntry
from game.spacer.data import norm
from game.spacer.review import Review


def check(r: Review) -> None:
    check_entries(r)
    resolve_service(r)
    check_rank(r)


def check_entries(r: Review) -> None:
    """Known departments and fields, fields in their own department, level = sum."""
    data = r.data
    for entry in r.char.departments:
        dept = data.find_department(entry.name)
        where = f"departments.{entry.name}"
        if dept is None:
            r.add("department-custom", [where],
                  f"'{entry.name}' is not one of the rules' departments (a Referee may add "
                  "departments).", "Check the spelling, or agree it with your Referee: "
                  + ", ".join(d.name for d in data.departments) + ".")
        for fname in entry.fields:
            f = data.find_field(fname)
            if f is None:
                if dept is not None:
                    r.add("field-custom", [f"{where}.fields.{fname}"],
                          f"'{fname}' is not a field of {dept.name} (a Referee may add "
                          "fields).", "Check the spelling, or agree it with your Referee: "
                          + ", ".join(x.name for x in dept.fields) + ".")
            elif dept is None or f.department != dept.id:
                owner = next(d.name for d in data.departments if d.id == f.department)
                r.add("field-department", [f"{where}.fields.{fname}"],
                      f"{fname} is a field of {owner}, not of {entry.name}.",
                      f"Move {fname} under {owner} (with a level of {owner} for each "
                      "level of the field).")
        total = sum(entry.fields.values())
        if entry.level is None:
            r.add("blank-field", [f"{where}.level"], f"The level of {entry.name} is blank.",
                  f"Write {total}, the sum of its fields.")
        elif entry.level != total:
            parts = " + ".join(f"{k} {v}" for k, v in entry.fields.items()) or "no fields"
            r.add("department-level", [f"{where}.level"],
                  f"{entry.name} is level {entry.level}, but its fields add up to {total} "
                  f"({parts}). A department's level is split among its fields.",
                  f"Make the fields add up to {entry.level}, or write {entry.name} {total}.")


def _is_officer(r: Review, entry: DepartmentEntry) -> bool:
    dept = r.data.find_department(entry.name)
    return dept is not None and dept.officer


def resolve_service(r: Review) -> None:
    """Officer or enlisted, branch, officer level and current department."""
    c = r.char
    officer = next((e for e in c.departments if _is_officer(r, e)), None)
    r.officer_level = (officer.level or 0) if officer else 0
    r.service = c.service or ("officer" if r.officer_level > 0 else "enlisted")
    r.branch = c.branch or "space"
    real = [e for e in c.departments if not _is_officer(r, e)]
    r.computed["service"] = r.service
    r.computed["branch"] = r.branch
    if c.service == "enlisted" and r.officer_level > 0:
        r.add("officer-service", ["service", "departments.Officer"],
              f"You are enlisted but have Officer {r.officer_level}; Officer levels are "
              "only for officers.",
              "Write service: officer, or spend those levels in your department.",
              reading="S16")
    if r.service == "officer" and not real:
        r.add("officer-department", ["departments"],
              "An officer takes Officer levels alongside a real department, and you have "
              "none.", "Add your department (Operations, Engineering, ...).", reading="S16")
    if c.current_department:
        key = norm(c.current_department)
        dept = r.data.find_department(c.current_department)
        r.current = next((e for e in real if norm(e.name) == key or (
            dept is not None and r.data.find_department(e.name) == dept)), None)
        if r.current is None:
            r.add("current-department", ["current_department"],
                  f"Your current department is {c.current_department}, but it is not "
                  "among your departments.",
                  "Write one of: " + (", ".join(e.name for e in real) or "(none yet)") + ".")
    elif real:
        r.current = max(real, key=lambda e: e.level or 0)
    if r.current is not None:
        r.computed["current_department"] = r.current.name


def check_rank(r: Review) -> None:
    """Officers: the lower of Officer and department level. Enlisted: the department level,
    as a rule of thumb (rank is set in play)."""
    c = r.char
    dept_level = (r.current.level or 0) if r.current is not None else 0
    dept_name = r.current.name if r.current is not None else "department"
    if r.service == "officer":
        expected = derived.officer_rank(r.officer_level, dept_level, dept_name)
        if c.rank is not None and c.rank != expected.value:
            r.add("rank-officer", ["rank"],
                  f"Rank: you wrote {c.rank}; an officer's rank is {expected.working}.",
                  f"Write {expected.value}.")
    else:
        expected = derived.Derived(dept_level, f"{dept_name} level {dept_level}")
        if c.rank is not None and c.rank != dept_level:
            r.add("rank-enlisted", ["rank"],
                  f"Rank {c.rank} differs from your {dept_name} level {dept_level}; rank is "
                  "set in play but normally equals the level in your current department.",
                  f"Check with your Referee, or write {dept_level}.", reading="S10")
    r.rank = c.rank if c.rank is not None else expected.value
    r.computed["rank"] = r.rank
    title = r.data.rank_title(r.service, r.branch, r.rank)
    r.computed["rank_title"] = title
    written = r.char.written.get("rank_title")
    if title and written and _title_key(r, written) != _title_key(r, title):
        r.add("rank-title", ["written.rank_title"],
              f"Rank title: you wrote '{written}'; rank {r.rank} {r.service} ({r.branch}) is "
              f"'{title}'.", f"Write '{title}', or keep your group's own title.")


def _title_key(r: Review, title: str) -> str:
    words = [r.data.rank_abbreviations.get(w, w) for w in title.split()]
    return norm(" ".join(words))
