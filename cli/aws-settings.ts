/**
 * The AWS SDK's errors for a setting it found nowhere (no region, no credentials), said in one
 * line naming the variables to set, instead of the SDK's "Region is missing" as an unexpected
 * error. Read from the error's shape: the SDK is loaded only when an s3:// location is used.
 */
export function missingAwsSetting(error: unknown): string | null {
  if (!(error instanceof Error)) return null;
  if (error.message === 'Region is missing')
    return 'no AWS region for the s3:// location: set AWS_REGION (or AWS_PROFILE, naming a profile with a region)';
  if (error.name === 'CredentialsProviderError')
    return 'no AWS credentials for the s3:// location: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE';
  return null;
}
