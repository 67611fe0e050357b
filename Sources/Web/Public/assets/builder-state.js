// The schedule builder's request in progress, kept in sessionStorage so the catalog can add
// courses to it and it survives a reload.
const KEY = 'campus-gateway.builder';

export function load() {
  try {
    const value = JSON.parse(sessionStorage.getItem(KEY) || 'null');
    if (value && Array.isArray(value.courses)) {
      // Requests kept before pinned and excluded classes existed.
      if (!Array.isArray(value.pinned)) value.pinned = [];
      if (!Array.isArray(value.excluded)) value.excluded = [];
      return value;
    }
  } catch {
    // Start over.
  }
  return { term: '', courses: [], blocked: [], openSeatsOnly: false, pinned: [], excluded: [], minUnits: '', maxUnits: '' };
}

export function save(value) {
  sessionStorage.setItem(KEY, JSON.stringify(value));
}

export function addCourseToBuilder(course, term) {
  const value = load();
  if (!value.courses.some((c) => c.course.toUpperCase() === course.toUpperCase())) value.courses.push({ course, optional: false });
  if (term && !value.term) value.term = term;
  save(value);
}
