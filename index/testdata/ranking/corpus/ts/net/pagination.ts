export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/** Iterates over every item of a cursor-paginated API. */
export async function* paginate<T>(fetchPage: (cursor?: string) => Promise<Page<T>>): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.items;
    cursor = page.nextCursor;
  } while (cursor);
}
