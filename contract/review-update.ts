/**
 * The review update's name, shared by the workflow's handler and every client. Apart from
 * review.ts so the workflow bundle imports it without zod.
 */
export const REVIEW_UPDATE = 'review';
