import { isPhotoCategory, type CategoryResult } from '@domain/photo-categories';

/** The server keeps a photo's category as text; a value outside the domain's list reads as 'uncategorized'. */
export const photoCategoryOf = (value: string | null | undefined): CategoryResult =>
  isPhotoCategory(value) ? value : 'uncategorized';

/** 'food_drink' -> 'food drink': categories are shown with spaces. */
export const categoryLabel = (category: CategoryResult) => category.replace(/_/g, ' ');
