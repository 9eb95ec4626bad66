import { defaultRangeExtractor, type Range } from '@tanstack/react-virtual';
import { useCallback } from 'react';

/**
 * A virtualiser's range extractor that renders the row at `index` (-1 for none) beside the
 * visible ones, wherever it is scrolled: the row an aria-activedescendant names, or the
 * one that holds the focus, must exist in the DOM. A new extractor when the index moves:
 * that is what makes the virtualiser compute its range again.
 */
export function useKeepRendered(index: number): (range: Range) => number[] {
  return useCallback(
    (range: Range) => {
      const indexes = defaultRangeExtractor(range);
      if (index >= 0 && index < range.count && !indexes.includes(index)) {
        indexes.push(index);
        indexes.sort((a, b) => a - b);
      }
      return indexes;
    },
    [index],
  );
}
