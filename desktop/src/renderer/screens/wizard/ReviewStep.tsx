// The wizard's review step: the configuration as a summary with the catalog's labels (when editing,
// what changes first) and, for AWS, the environment's diagram.
import { fillServices } from '../../lib/catalog/prepared-catalog.ts'
import type { LoadedCatalog } from '../../lib/catalog/source.ts'
import type { Environment } from '../../lib/api/types.ts'
import { valuesFromEnvironment, type WizardValues } from '../../lib/wizard/values.ts'
import { ReviewSummary } from '../../components/ReviewSummary.tsx'
import { EnvironmentDiagram } from '../../components/EnvironmentDiagram.tsx'
import type { OpenWizard } from './wizard-state.ts'

/** The stored environment as wizard values, filled from the catalog like the edited copy (for "what changes"). */
function originalValues(env: Environment, catalog: LoadedCatalog['catalog']): WizardValues {
  const v = valuesFromEnvironment(env)
  fillServices(v.services, catalog)
  return v
}

export function ReviewStep({ wizard }: { wizard: OpenWizard }) {
  const { values, original, loaded, editing } = wizard
  return (
    <>
      <ReviewSummary
        values={values}
        original={original ? originalValues(original, loaded.catalog) : null}
        catalog={loaded.catalog}
        editing={editing}
      />
      {values.provider === 'aws' && (
        <EnvironmentDiagram services={loaded.catalog.diagram} values={values.services} testId="review-diagram" />
      )}
    </>
  )
}
