import { lazy } from 'react';

export const OrganizerPage = lazy(() => import('./organizer-page'));
