"""Field paths per ATS platform: the one config-driven mapping of every JSON API.

Each entry says where a listing's items are, where a single posting is, and which
path holds each schema field (first non-empty path wins). Everything paths cannot
express lives in the platform's own module as a small adapter. docs/parsers.md
explains each platform's quirks; keep the two in step.
"""

from __future__ import annotations

from parsers.jsonmap import JsonMapping, OfficeMap, RemoteRule

_REMOTE_HYBRID = {"remote": "yes", "hybrid": "hybrid"}
_WORKDAY_REMOTE = {
    "remote": "yes",
    "fully remote": "yes",
    "100% remote": "yes",
    "virtual": "yes",
    "hybrid": "hybrid",
    "flex": "hybrid",
    "flexible": "hybrid",
    "on-site": "unknown",
    "onsite": "unknown",
    "on site": "unknown",
    "in office": "unknown",
}

GREENHOUSE = JsonMapping(
    platform="greenhouse",
    listing="jobs",
    single="",
    single_keys=("id", "title"),
    total="meta.total",
    fields={
        "external_id": "id",
        "url": "absolute_url",
        "title": "title",
        "company": "company_name",
        "department": "departments[*].name",
        "location_text": "location.name",
        "description_html": "content",
        # first_published is the posting date; updated_at is not, so it is never used.
        "posted_at": "first_published",
        "apply_url": "absolute_url",
    },
    # `content` is entity-escaped HTML; the Greenhouse adapter unescapes it once.
    # An office's `name` is an internal label (often a legal entity, "Acme India
    # Private Limited"): only its `location` is a place, so no fallback to the name.
    offices=(OfficeMap("offices[*]", text="location"),),
)

LEVER = JsonMapping(
    platform="lever",
    listing="",
    single="",
    single_keys=("id", "text"),
    fields={
        "external_id": "id",
        "url": "hostedUrl",
        "title": "text",
        "department": ("categories.department", "categories.team"),
        "location_text": "categories.location",
        "employment_type": "categories.commitment",
        "posted_at": "createdAt",
        "apply_url": "applyUrl",
    },
    offices=(OfficeMap("categories.allLocations[*]"), OfficeMap("categories.location")),
    remote=(RemoteRule("workplaceType", _REMOTE_HYBRID),),
)

ASHBY = JsonMapping(
    platform="ashby",
    listing="jobs",
    fields={
        "external_id": "id",
        "url": "jobUrl",
        "title": "title",
        "department": "department",
        "location_text": "location",
        "description_html": "descriptionHtml",
        "description_text": "descriptionPlain",
        "employment_type": "employmentType",
        "posted_at": "publishedAt",
        "apply_url": "applyUrl",
    },
    offices=(
        OfficeMap(
            "",
            text="location",
            city="address.postalAddress.addressLocality",
            region="address.postalAddress.addressRegion",
            country="address.postalAddress.addressCountry",
        ),
        OfficeMap(
            "secondaryLocations[*]",
            text="location",
            city="address.postalAddress.addressLocality",
            region="address.postalAddress.addressRegion",
            country="address.postalAddress.addressCountry",
        ),
    ),
    # workplaceType (newer responses) is more precise than the older isRemote flag.
    remote=(RemoteRule("workplaceType", _REMOTE_HYBRID), RemoteRule("isRemote", {True: "yes"})),
)

SMARTRECRUITERS = JsonMapping(
    platform="smartrecruiters",
    listing="content",
    single="",
    single_keys=("id", "name"),
    total="totalFound",
    fields={
        "external_id": "id",
        "url": "postingUrl",
        "title": "name",
        "company": "company.name",
        "department": "department.label",
        "location_text": "location.fullLocation",
        "employment_type": "typeOfEmployment.label",
        "posted_at": "releasedDate",
        "apply_url": "applyUrl",
        "detail_url": "ref",
    },
    offices=(
        OfficeMap("location", text="fullLocation", city="city", region="region", country="country"),
    ),
    remote=(
        RemoteRule("location.hybrid", {True: "hybrid"}),
        RemoteRule("location.remote", {True: "yes"}),
    ),
    listing_has_description=False,
)

WORKABLE = JsonMapping(
    platform="workable",
    listing="jobs",
    single="",
    single_keys=("shortcode", "title"),
    fields={
        "external_id": "shortcode",
        "url": ("url", "shortlink"),
        "title": "title",
        "company": "$.name",
        "department": "department",
        "employment_type": "employment_type",
        "posted_at": ("published_on", "published", "created_at"),
        "apply_url": "application_url",
    },
    offices=(
        OfficeMap("locations[*]", city="city", region="region", country="country"),
        OfficeMap("location", city="city", region="region", country="country"),
        OfficeMap("", city="city", region="state", country="country"),
    ),
    remote=(
        RemoteRule("workplace", _REMOTE_HYBRID),
        RemoteRule("telecommuting", {True: "yes"}),
        RemoteRule("remote", {True: "yes"}),
    ),
)

# The careers-page API (`POST /api/v3/accounts/{account}/jobs`): `{total, results[],
# nextPage}`; rows carry no description and no URL (both built by the adapter).
WORKABLE_V3 = JsonMapping(
    platform="workable",
    listing="results",
    single="",  # the v2 detail of one posting
    single_keys=("shortcode", "title"),
    total="total",
    fields={
        "external_id": "shortcode",
        "title": "title",
        "department": "department",
        "employment_type": "type",
        "posted_at": "published",
    },
    offices=(
        OfficeMap("locations[*]", city="city", region="region", country="country"),
        OfficeMap("location", city="city", region="region", country="country"),
    ),
    remote=(
        RemoteRule("workplace", {**_REMOTE_HYBRID, "on_site": "unknown", "onsite": "unknown"}),
        RemoteRule("remote", {True: "yes"}),
    ),
    listing_has_description=False,
)

WORKDAY = JsonMapping(
    platform="workday",
    listing="jobPostings",
    single="jobPostingInfo",
    single_keys=("title",),
    total="total",
    fields={
        "url": "externalUrl",
        "title": "title",
        "company": "$.hiringOrganization.name",
        "location_text": "locationsText",
        "description_html": "jobDescription",
        "employment_type": "timeType",
        # The detail's startDate is the posting date; the listing only has relative text.
        "posted_at": ("startDate", "postedOn"),
    },
    # Workday's labels: "Flex" is its hybrid; "On-site" says nothing about remote work.
    remote=(RemoteRule("remoteType", _WORKDAY_REMOTE),),
    listing_has_description=False,
    # A row's id comes from its page path (parsers/workday.py), not from a field.
    row_markers=(("externalPath",), ("title",)),
)

RECRUITEE = JsonMapping(
    platform="recruitee",
    listing="offers",
    single="offer",
    single_keys=("id", "title"),
    fields={
        "external_id": "id",
        "url": "careers_url",
        "title": "title",
        "company": "company_name",
        "department": "department",
        "location_text": "location",
        "employment_type": "employment_type_code",
        "posted_at": ("published_at", "created_at"),
        "apply_url": "careers_apply_url",
    },
    offices=(OfficeMap("locations[*]", city="city", region="state", country="country"),),
    remote=(RemoteRule("hybrid", {True: "hybrid"}), RemoteRule("remote", {True: "yes"})),
)

BAMBOOHR = JsonMapping(
    platform="bamboohr",
    listing="result",
    single="result.jobOpening",
    single_keys=("jobOpeningName",),
    total="meta.totalCount",
    fields={
        "external_id": "id",
        "url": "jobOpeningShareUrl",
        "title": "jobOpeningName",
        "department": "departmentLabel",
        "employment_type": "employmentStatusLabel",
        "description_html": "description",
        "posted_at": "datePosted",
    },
    offices=(
        OfficeMap("location", city="city", region="state", country="addressCountry"),
        OfficeMap("atsLocation", city="city", region=("state"), country="country"),
    ),
    # locationType "1" is remote and "2" hybrid on real boards (no label is published).
    remote=(
        RemoteRule("locationType", {"1": "yes", "2": "hybrid"}),
        RemoteRule("isRemote", {True: "yes"}),
    ),
    listing_has_description=False,
)

TEAMTAILOR = JsonMapping(
    platform="teamtailor",
    listing="items",
    fields={
        "external_id": ("_jobposting.identifier.value", "id"),
        "url": "url",
        "title": "title",
        "company": "_jobposting.hiringOrganization.name",
        "description_html": ("content_html", "_jobposting.description"),
        "description_text": "content_text",
        "employment_type": "_jobposting.employmentType",
        "posted_at": ("date_published", "_jobposting.datePosted"),
    },
    listing_has_description=False,
)

PERSONIO = JsonMapping(
    platform="personio",
    listing="positions",
    fields={
        "external_id": "id",
        "title": "name",
        "company": "subcompany",
        "department": "department",
        "posted_at": "createdAt",
    },
    offices=(OfficeMap("office"), OfficeMap("additionalOffices[*]")),
)

MAPPINGS: dict[str, JsonMapping] = {
    m.platform: m
    for m in (
        GREENHOUSE,
        LEVER,
        ASHBY,
        SMARTRECRUITERS,
        WORKABLE,
        WORKDAY,
        RECRUITEE,
        BAMBOOHR,
        TEAMTAILOR,
        PERSONIO,
    )
}

# ---------------------------------------------------------------- Pinpoint, Breezy, Rippling, Oracle, ...

# `https://{company}.pinpointhq.com/postings.json`: `{data: [...]}`, every open posting
# with its advert split into sections (see parsers/pinpoint.py).
PINPOINT = JsonMapping(
    platform="pinpoint",
    listing="data",
    fields={
        "external_id": "id",  # replaced by the posting's UUID (its public URL) when known
        "url": "url",
        "title": "title",
        "department": ("job.department.name", "department.name"),
        "location_text": "location.name",
        "employment_type": ("employment_type_text", "employment_type"),
        "posted_at": ("published_at", "created_at"),
    },
    offices=(OfficeMap("location", text="name", city="city", region="province"),),
    remote=(
        RemoteRule("workplace_type", {"remote": "yes", "hybrid": "hybrid", "onsite": "unknown"}),
        # Rows may carry only the display text (a real feed: "Hybrid" without the code).
        RemoteRule(
            "workplace_type_text", {"remote": "yes", "fully remote": "yes", "hybrid": "hybrid"}
        ),
    ),
)

MAPPINGS.update({m.platform: m for m in (PINPOINT,)})

# `https://{company}.breezy.hr/json?verbose=true`: a top-level array of positions;
# `verbose=true` adds each `description` (see parsers/breezy.py).
BREEZY = JsonMapping(
    platform="breezy",
    listing="",
    fields={
        "external_id": "id",
        "url": "url",
        "title": "name",
        "company": "company.name",
        "department": ("department.name", "department"),
        "location_text": "location.name",
        "description_html": "description",
        "employment_type": "type.name",
        "posted_at": "published_date",
    },
    offices=(
        OfficeMap(
            "locations[*]", text="name", city="city", region="state.name", country="country.name"
        ),
        OfficeMap(
            "location", text="name", city="city", region="state.name", country="country.name"
        ),
    ),
    remote=(RemoteRule("location.is_remote", {True: "yes"}),),
)

MAPPINGS.update({m.platform: m for m in (BREEZY,)})

# `GET ats.rippling.com/api/v2/board/{board}/jobs?page=N&pageSize=M`: `{items, page,
# pageSize, totalItems, totalPages}` without descriptions; `.../jobs/{id}` is the
# posting's detail (see parsers/rippling.py).
RIPPLING = JsonMapping(
    platform="rippling",
    listing="items",
    single="",
    single_keys=("name", "description"),
    total="totalItems",
    fields={
        "external_id": ("id", "uuid"),
        "url": "url",
        "title": "name",
        "company": "companyName",
        "department": ("department.name", "department.label"),
        # The id is the readable form ("Salaried, full-time"), the label a code.
        "employment_type": ("employmentType.id", "employmentType.label"),
        "posted_at": "createdOn",
    },
    offices=(
        OfficeMap("locations[*]", text="name", city="city", region="state", country="country"),
        OfficeMap("workLocations[*]"),
        # The v1 board API (a bare array) names one location a row, as a label.
        OfficeMap("workLocation", text="label"),
    ),
    remote=(
        RemoteRule(
            "locations[0].workplaceType",
            {"REMOTE": "yes", "HYBRID": "hybrid", "ON_SITE": "unknown"},
        ),
    ),
    listing_has_description=False,
)

MAPPINGS.update({m.platform: m for m in (RIPPLING,)})

# Oracle Recruiting Cloud (HCM REST): `recruitingCEJobRequisitions` nests a page of rows
# at `items[0].requisitionList` with the board's count in `items[0].TotalJobsCount`;
# `recruitingCEJobRequisitionDetails` (ById) holds one requisition at `items[0]`.
ORACLE = JsonMapping(
    platform="oracle",
    listing="items[0].requisitionList",
    single="items[0]",
    single_keys=("Id", "Title"),
    total="items[0].TotalJobsCount",
    fields={
        "external_id": "Id",
        "title": "Title",
        "department": ("Department", "Organization", "JobFamily"),
        "location_text": "PrimaryLocation",
        "employment_type": ("JobSchedule", "WorkerType", "JobType"),
        "posted_at": ("ExternalPostedStartDate", "PostedDate"),
    },
    offices=(
        OfficeMap("", text="PrimaryLocation", country="PrimaryLocationCountry"),
        OfficeMap("secondaryLocations[*]", text="Name", country="CountryCode"),
    ),
    listing_has_description=False,  # ShortDescriptionStr is a teaser, not the advert
)

MAPPINGS.update({m.platform: m for m in (ORACLE,)})

# SAP SuccessFactors (Recruiting): the career site's XML feed
# (`/career?company={company}&career_ns=job_listing_summary&resultType=XML`),
# `<Job-Listing><Job>`; facets are read by their labels (see parsers/successfactors.py).
SUCCESSFACTORS = JsonMapping(
    platform="successfactors",
    listing="jobs",
    fields={
        "external_id": "ReqId",
        "title": "JobTitle",
        "description_html": "Job-Description",
    },
)

MAPPINGS.update({m.platform: m for m in (SUCCESSFACTORS,)})

# SuccessFactors Career Site Builder's RSS feed (`{site}/googlefeed.xml`), read into
# rows by parsers/successfactors.py (`g:` elements as `g_`, the id worked out there).
# Not in MAPPINGS: the XML feed's mapping is the platform's.
SUCCESSFACTORS_RSS = JsonMapping(
    platform="successfactors",
    listing="jobs",
    fields={
        "external_id": "id",
        "title": "title",
        "url": "link",
        "description_html": "description",
        "department": "g_job_function",
        "employment_type": "g_job_type",
    },
)

# JazzHR: the public XML job feed (`app.jazz.co/feeds/export/jobs/{company}`),
# `<jobs>` of `<job>` with CDATA text (see parsers/jazzhr.py).
JAZZHR = JsonMapping(
    platform="jazzhr",
    listing="jobs",
    fields={
        "external_id": "id",
        "url": "url",
        "title": "title",
        "company": "$.$root.company",
        "department": "department",
        "description_html": "description",
        "employment_type": "type",
        "posted_at": "original_open_date",
    },
    offices=(OfficeMap("", city="city", region="state", country="country"),),
)

MAPPINGS.update({m.platform: m for m in (JAZZHR,)})

# Jobvite: the company's public XML feed (`app.jobvite.com/CompanyJobs/Xml.aspx?c={eid}`),
# `<result>` of `<job>` (see parsers/jobvite.py).
JOBVITE = JsonMapping(
    platform="jobvite",
    listing="jobs",
    fields={
        "external_id": "id",
        "url": ("detail-url", "apply-url"),
        "title": "title",
        "department": "category",
        "location_text": "location",
        "description_html": ("description", "briefdescription"),
        "employment_type": "jobtype",
        "apply_url": "apply-url",
    },
    offices=(OfficeMap("location"),),
)

MAPPINGS.update({m.platform: m for m in (JOBVITE,)})

# Jobvite's career-site search page (`jobs.jobvite.com/{slug}/search`, HTML), read into
# rows by parsers/jobvite.py; each job's own page carries the advert (JSON-LD). Not in
# MAPPINGS: the feed's mapping is the platform's.
JOBVITE_SITE = JsonMapping(
    platform="jobvite",
    listing="jobs",
    fields={
        "external_id": "id",
        "url": "url",
        "title": "title",
        "location_text": "location",
    },
    offices=(OfficeMap("location"),),
    listing_has_description=False,
)

# iCIMS: the portal's job search pages (HTML, `.iCIMS_JobsTable` rows), read into rows
# by parsers/icims.py; each posting's own page carries the advert (JSON-LD).
ICIMS = JsonMapping(
    platform="icims",
    listing="jobs",
    total="total",
    fields={
        "external_id": "id",
        "url": "url",
        "title": "title",
        "department": "category",
        "location_text": "location",
        "posted_at": "posted",
        "detail_url": "detail_url",
    },
    listing_has_description=False,
)

MAPPINGS.update({m.platform: m for m in (ICIMS,)})
